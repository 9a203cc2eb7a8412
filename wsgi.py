"""The WSGI entry point: `gunicorn wsgi:app` (what `copas serve` runs)."""

from api import create_app

app = create_app()
