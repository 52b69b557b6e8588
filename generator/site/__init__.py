"""The site: pages rendered from records and hubs, sanitised, and the thin MkDocs adapter."""
