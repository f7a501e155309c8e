"""Re-record a profile scenario's server answers from its own real stdio servers.

    .venv/bin/python -m tests.profile.record_fixture profile-usage [--expected]

The same recorder as ``tests.profile_sources.record_scenario`` (kept under this name for the
command the docs give): the scenario home is copied to a temporary directory, every configured
server is launched through the real launcher (project scope included) and ``answers.json`` is
written in the recorded-answers format the fake launcher replays; ``--expected`` then re-renders
the scenario's expected reports from that replay.
"""

from __future__ import annotations

from tests.profile_sources.record_scenario import main, record, refresh_expected

__all__ = ["main", "record", "refresh_expected"]

if __name__ == "__main__":
    main()
