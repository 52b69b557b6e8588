"""The compiled matcher, the versioned signature library and the exporters for log platforms."""
