"""Sluice as an MCP server: the gateway's own path (directory, sheets, propose) as MCP tools.

Built on the official `mcp` SDK. Nothing here bypasses the facade: an outside agent gets the
permissions, caps, preview, all-or-nothing commit and audit trail of Sluice's own agent, and
only a person confirms, with their own key: in the web console, whose review page the server
sends them (URL-mode elicitation), or with `sluice confirm`; by answering a form only on a
client the operator declared trusted (SLUICE_MCP_TRUSTED_CLIENTS).
"""
