"""Filings in: parse PDFs (and convert HTML), lines, tables, chunks, metadata, EDGAR downloads, and the build
that ties them."""
