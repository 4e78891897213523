"""The bank's projections, beside the gateway's runs, in the order they are caught up."""

BANK_PROJECTIONS = ("balances", "statement", "runs")
