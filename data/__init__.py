"""Sample logs shipped with vlkb."""
