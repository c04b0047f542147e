"""``charwise cache info|prune``: what charwise keeps under its cache folder, and removing what is unused.

The cache (``$CHARWISE_CACHE``, else ``~/.cache/charwise``) holds what charwise derives once and
reuses: the speller's lexicons, edit indexes, vectors and frequency tables, and unpacked models
(:mod:`charwise.cache`). Every entry is rebuilt when it is needed and missing, so removing one
costs only the time to build it again.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from charwise.cli.common import check_min


def add_parser(sub: Any) -> None:
    """Register ``cache info`` and ``cache prune`` on the main parser's subparsers."""
    c = sub.add_parser("cache", help="show or prune what charwise keeps in its cache folder")
    actions = c.add_subparsers(dest="cache_command", required=True)
    info = actions.add_parser("info", help="the cache folder, its entries, their sizes and what each is")
    info.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    info.set_defaults(func=cmd_info)
    prune = actions.add_parser(
        "prune", help="remove entries the current charwise version has not used (or by age, or all)")
    which = prune.add_mutually_exclusive_group()
    which.add_argument("--older-than", type=float, metavar="DAYS",
                       help="remove the entries no charwise version has used for DAYS days")
    which.add_argument("--all", action="store_true", help="remove every entry")
    prune.add_argument("--dry-run", action="store_true", help="list what would be removed, remove nothing")
    prune.set_defaults(func=cmd_prune)


def _age(seconds: float) -> str:
    """``3 min ago``, ``5 h ago``, ``12 days ago``, ``just now``: how long ago, roughly."""
    for unit, size in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f} {unit} ago"
    return "just now"


def cmd_info(args: argparse.Namespace) -> int:
    from charwise.cache import cache_entries, cache_root, charwise_version, human_size

    root = cache_root()
    entries = cache_entries(root)
    total = sum(e.size for e in entries)
    if args.json:
        print(json.dumps({"location": str(root), "charwise": charwise_version(), "entries": len(entries),
                          "bytes": total,
                          "items": [{"path": str(e.path), "what": e.what, "bytes": e.size, "last_used": e.last_used,
                                     "used_by": list(e.versions), "built_by": e.built_by} for e in entries]}))
        return 0
    print(f"location: {root}")
    print(f"entries:  {len(entries)}, {human_size(total)}")
    now = time.time()
    for e in entries:
        used = ("used by this version" if charwise_version() in e.versions
                else "not used by this version")
        print(f"{human_size(e.size):>9}  {e.path.relative_to(root)}  {e.what}; last used {_age(now - e.last_used)}, "
              f"{used}")
    return 0


def cmd_prune(args: argparse.Namespace) -> int:
    from charwise.cache import cache_entries, cache_root, charwise_version, human_size, prune_cache

    if args.older_than is not None:
        check_min("--older-than", args.older_than, 0)
    root = cache_root()
    if args.older_than is None and not args.all:
        version = charwise_version()
        if not any(version in e.versions for e in cache_entries(root)):
            # Nothing has run since this version was installed: every entry would count as unused,
            # and removing them all would cost the user a full rebuild on the next command.
            print(f"charwise {version} has not used the cache in {root} yet, so nothing is known to be unused: "
                  "run a command first, or use --older-than DAYS or --all")
            return 0
    removed = prune_cache(older_than_days=args.older_than, everything=args.all, dry_run=args.dry_run, root=root)
    verb = "would remove" if args.dry_run else "removed"
    for e in removed:
        print(f"{verb} {e.path.relative_to(root)} ({human_size(e.size)}, {e.what})")
    print(f"{verb} {len(removed)} entries, {human_size(sum(e.size for e in removed))}")
    return 0
