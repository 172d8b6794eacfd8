"""The kg_* tools of spec 004 and the link tools: reads, context, extraction, writes, links."""
