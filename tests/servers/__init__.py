"""HTTP servers used by the end-to-end tests."""
