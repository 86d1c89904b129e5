"""Model kinds over the core Params, their file format and the registry of shipped models."""
