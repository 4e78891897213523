"""What drives the core: HTTP, the `sluice` CLI, MCP (streamable HTTP and stdio) and the web
console. Each reads typed results from the facade; none decides a permission."""
