"""Proving a figure on its page: locating quotes and rendering pages with highlights."""
