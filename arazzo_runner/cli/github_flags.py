"""`--github auto|on|off`, shared by `arazzo run` and `arazzo report`: whether GitHub Actions outputs
(annotations at the failed steps, the Markdown summary appended to `$GITHUB_STEP_SUMMARY`) are written.
Light on purpose: `arazzo run` asks it on every run without importing the report command's module."""

from __future__ import annotations

import argparse
import os


def add_github_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--github",
        choices=("auto", "on", "off"),
        default="auto",
        help="GitHub Actions outputs: annotations (::error file=...,line=...) at the steps that failed a "
        "workflow, and the --summary Markdown appended to $GITHUB_STEP_SUMMARY; auto (default): in "
        "GitHub Actions",
    )


def github_wanted(args: argparse.Namespace) -> bool:
    """`--github on`, or `auto` in GitHub Actions (or wherever `$GITHUB_STEP_SUMMARY` is set)."""
    mode = getattr(args, "github", "auto")
    if mode == "auto":
        return os.environ.get("GITHUB_ACTIONS") == "true" or bool(os.environ.get("GITHUB_STEP_SUMMARY"))
    return mode == "on"
