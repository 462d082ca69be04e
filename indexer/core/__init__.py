"""Shared by every stage: the records (models), errors, the text vocabulary and tokenizer, section labels,
company aliases, time budgets."""
