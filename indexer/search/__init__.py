"""Questions in: the search request, the recipe (expansion, routing, fusion, filters) and its knobs, highlights,
regex mode, eval."""
