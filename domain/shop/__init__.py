"""The shop: products with stock, the catalogue listing them, and customers' orders."""
