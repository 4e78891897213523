"""The gateway's core: the facade every interface drives, proposals and confirmation,
policy (who may do what, caps, rates), the program runners (sandbox, plans), the catalog
(directory, sheets, stubs) and the typed results they return. Imports no interface."""
