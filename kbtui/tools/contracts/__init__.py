"""The tool contracts of the spec files: names, parameters with defaults and ranges, result
fields. No handler: the catalogue and a client process read them without loading the tools."""
