"""Agent-evaluation replays."""
