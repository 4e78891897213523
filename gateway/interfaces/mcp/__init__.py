"""Sluice as an MCP server: the gateway's own path (directory, sheets, propose) as MCP tools.

Built on the official `mcp` SDK. Nothing here bypasses the facade: an outside agent gets the
permissions, caps, preview, all-or-nothing commit and audit trail of Sluice's own agent, and
only a person confirms (through MCP elicitation, the web console or `sluice confirm`).
"""
