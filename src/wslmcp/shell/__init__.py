"""The shell server: runs commands and moves files in one WSL distro as one user, behind a guard."""
