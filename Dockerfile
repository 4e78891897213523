# The gateway image: the sluice package and its command, nothing else. It runs as an
# unprivileged user that owns only /app/var (the SQLite default's folder).
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY domain ./domain
COPY application ./application
COPY gateway ./gateway
COPY infrastructure ./infrastructure
RUN pip install --no-cache-dir . \
    && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin sluice \
    && mkdir -p /app/var && chown sluice:sluice /app/var
USER sluice
EXPOSE 8000
# `sluice serve` on its default port answers /health 200 when the store and read models
# answer; the one-shot `demo` and the `project` service turn it off (docker-compose.yml).
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4)"]
ENTRYPOINT ["sluice"]
