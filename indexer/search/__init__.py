"""Questions in: the search request, the recipe (which retrievers and stages run, expansion, routing, fusion,
filters and their knobs), highlights, regex mode; eval runs above it (indexer/evaluate.py)."""
