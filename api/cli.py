"""The `copas` command: serve, worker, db upgrade, openapi, audit, tournament."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from typing import Any

from .config import METRICS_DIRECTORY_ENV, Settings
from .store import database_url


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] and argv[0] in DELEGATED:
        # Handed over untouched: through argparse's REMAINDER, leading options
        # (`--table ID`) would be moved after their values.
        return _delegate(argv[0], argv[1:])
    parser = argparse.ArgumentParser(prog="copas", description="The Copas table service.")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="apply migrations, then serve the API (gunicorn) and deliver webhooks")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="processes (default: one per core; each holds the GIL apart)"
    )
    serve.add_argument(
        "--worker-class",
        choices=("gevent", "gthread"),
        default="gevent",
        help="gevent (default): a waiting request is a greenlet, so thousands wait at once; gthread: a thread each",
    )
    serve.add_argument("--connections", type=int, default=10_000, help="gevent: clients served at once per worker (waiters included)")
    serve.add_argument("--threads", type=int, default=32, help="gthread: threads per worker (a long poll holds one)")
    serve.add_argument("--no-dispatcher", action="store_true", help="do not start `copas worker` (webhook delivery and the strong bots)")
    serve.add_argument("--no-access-log", dest="access_log", action="store_false", help="do not log each request")

    commands.add_parser("worker", help="deliver webhooks from the outbox and play the strong bots' moves (runs until stopped)")

    db = commands.add_parser("db", help="database commands")
    db_commands = db.add_subparsers(dest="db_command", required=True)
    db_commands.add_parser("upgrade", help="apply the migrations (alembic upgrade head)")

    commands.add_parser("openapi", help="print the OpenAPI document")

    audit = commands.add_parser("audit", help="replay tables from the database and check them", add_help=False)
    audit.add_argument("rest", nargs=argparse.REMAINDER)
    tournament = commands.add_parser("tournament", help="play bots against each other on duplicate deals", add_help=False)
    tournament.add_argument("rest", nargs=argparse.REMAINDER)

    args, extra = parser.parse_known_args(argv)
    if args.command == "serve":
        return _serve(args)
    if args.command == "worker":
        from .service.bots_worker import start_bot_worker
        from .service.delivery import run_worker

        settings = Settings.from_env()
        bots, thread = start_bot_worker(settings)
        try:
            return run_worker(settings)
        finally:
            bots.stop()
            thread.join(timeout=10)
    if args.command == "db":
        from .store.migrate import upgrade

        upgrade(database_url())
        print(f"migrated {_redacted(database_url())}")
        return 0
    if args.command == "openapi":
        sys.stdout.write(openapi_document())
        return 0
    parser.error(f"unknown command {args.command}")
    return 2


DELEGATED = {"audit": "api.audit_cli", "tournament": "api.tournament"}


def _delegate(command: str, argv: list[str]) -> int:
    """Run a command that parses its own arguments (`copas audit`, `copas tournament`)."""
    import importlib

    module = importlib.import_module(DELEGATED[command])
    return int(module.main(argv) or 0)


def openapi_document() -> str:
    """The OpenAPI document as committed under openapi/ (sorted keys, stable)."""
    from . import create_app
    from .store import open_store

    app = create_app(Settings(), store=open_store("memory://"))
    spec: dict[str, Any] = app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict()
    return json.dumps(spec, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _serve(args: argparse.Namespace) -> int:
    from gunicorn.app.base import BaseApplication

    url = database_url()
    # Migrations run in a child process: this one (gunicorn's arbiter, which the
    # workers fork from) must not import psycopg before gevent patches the
    # workers, or psycopg keeps its blocking wait and one query stalls them all.
    subprocess.run([sys.executable, "-m", "api.cli", "db", "upgrade"], env={**os.environ, "DATABASE_URL": url}, check=True)
    _raise_open_files_limit()
    # The workers of this node share their rate-limit buckets in one small file of its own.
    shared = None if os.environ.get("COPAS_RATE_LIMIT_FILE") else tempfile.mkdtemp(prefix="copas-ratelimit-")
    if shared is not None:
        os.environ["COPAS_RATE_LIMIT_FILE"] = os.path.join(shared, "buckets.sqlite")
    dispatcher: subprocess.Popen[bytes] | None = None
    if not args.no_dispatcher:
        dispatcher = subprocess.Popen([sys.executable, "-m", "api.cli", "worker"], env={**os.environ, "DATABASE_URL": url})

    # Before prometheus_client is first imported, so that the workers forked from here share it.
    metrics_directory = tempfile.mkdtemp(prefix="copas-metrics-")
    os.environ[METRICS_DIRECTORY_ENV] = metrics_directory
    from .service import metrics

    class Server(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            self.cfg.set("child_exit", lambda _arbiter, worker: metrics.worker_exited(worker.pid))
            self.cfg.set("bind", f"{args.host}:{args.port}")
            self.cfg.set("workers", args.workers)
            self.cfg.set("worker_class", args.worker_class)
            if args.worker_class == "gevent":
                # A long poll or a stream is a parked greenlet (a few KB), woken by
                # the worker's one LISTEN connection: it holds no thread and no
                # database connection, so a worker serves thousands at once.
                self.cfg.set("worker_connections", args.connections)
            else:
                self.cfg.set("threads", args.threads)
            # gevent workers heartbeat from their event loop: `timeout` kills one
            # whose loop is stuck (CPU-bound) that long, never a long request.
            self.cfg.set("timeout", 30)
            # On restart, requests get this long to finish; streams are cut and
            # their clients reconnect with Last-Event-ID.
            self.cfg.set("graceful_timeout", 10)
            self.cfg.set("keepalive", 5)
            self.cfg.set("backlog", 4096)
            self.cfg.set("control_socket_disable", True)  # several nodes may share a host; nothing uses it
            self.cfg.set("accesslog", "-" if args.access_log else None)
            self.cfg.set("post_worker_init", warm_thinkers)

        def load(self) -> Any:
            os.environ["DATABASE_URL"] = url
            from . import create_app  # the same app as wsgi:app

            app = create_app()
            if args.worker_class != "gevent":
                return app
            from .web.turns import taking_turns

            return taking_turns(app)

    try:
        Server().run()
    finally:
        shutil.rmtree(metrics_directory, ignore_errors=True)
        if shared is not None:
            shutil.rmtree(shared, ignore_errors=True)
        if dispatcher is not None:
            dispatcher.send_signal(signal.SIGTERM)
            try:
                dispatcher.wait(timeout=10)
            except subprocess.TimeoutExpired:
                dispatcher.kill()
    return 0


def warm_thinkers(worker: Any) -> None:
    """Start a gunicorn worker's thinker processes (hints) at once, not on its first hint."""
    from .service.bots_worker import shared_pool

    shared_pool().warm()


def _raise_open_files_limit() -> None:
    """Each waiting client is an open socket: take the hard limit of open files."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else 1 << 20
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


def _redacted(url: str) -> str:
    scheme, sep, rest = url.partition("://")
    if "@" in rest:
        rest = "***@" + rest.split("@", 1)[1]
    return scheme + sep + rest


if __name__ == "__main__":
    sys.exit(main())
