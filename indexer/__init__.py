"""Offline indexer: PDFs → pages with line boxes → page-aware chunks → BM25 + FAISS index folder."""

__version__ = "0.1.0"
