"""The index folder: its layout, reading and writing it, publishing versions, loading one, and the ranking
storage beneath search."""
