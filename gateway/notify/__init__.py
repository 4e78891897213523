"""Telling a person that a proposal waits for them: an optional signed webhook."""
