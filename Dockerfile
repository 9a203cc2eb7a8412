# A slim image running `copas serve` (gunicorn + the webhook dispatcher) on port 8000.
#   docker build -t copas .
#   docker run -p 8000:8000 -e DATABASE_URL=postgresql+psycopg://user:pass@db:5432/copas copas
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
RUN useradd --create-home --uid 10001 copas

# Dependencies first, so code changes do not reinstall them.
COPY pyproject.toml README.md ./
RUN mkdir api && touch api/__init__.py && pip install . && rm -rf api build *.egg-info

COPY alembic.ini wsgi.py ./
COPY api ./api
COPY migrations ./migrations
# Editable, so the migrations beside the package are found from /app.
RUN pip install --no-deps -e . && mkdir -p var && chown copas var

USER copas
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/v1/health').status != 200)"
CMD ["copas", "serve", "--host", "0.0.0.0", "--port", "8000"]
