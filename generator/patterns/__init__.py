"""The portable regex dialect, its translations to other engines, and the one normalisation step."""
