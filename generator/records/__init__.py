"""Reading and checking records: strict load, positions, the schema, validation, the immutable model."""
