# The gateway image: the sluice package and its command, nothing else.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY domain ./domain
COPY application ./application
COPY gateway ./gateway
COPY infrastructure ./infrastructure
RUN pip install --no-cache-dir . && mkdir -p /app/var
ENTRYPOINT ["sluice"]
