"""Transcript adapters: Claude Code JSONL sessions and Codex rollouts, read as streams."""
