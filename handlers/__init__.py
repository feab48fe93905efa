"""Thin HTTP handlers, one function per operationId (see afm.app.TagResolver):
parse the generated request model, call the engine, shape the generated response model."""
