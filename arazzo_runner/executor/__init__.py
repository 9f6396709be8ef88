"""Execution: steps, actions, retries and workflows over a loaded workspace (the async core)."""
