# Builds the package as a wheel and installs it on Alpine with the runtime dependencies
# at the versions of uv.lock, checked against their hashes.
FROM ghcr.io/astral-sh/uv:0.6-python3.13-alpine AS build
ARG SETUPTOOLS_SCM_PRETEND_VERSION
WORKDIR /src
COPY . .
RUN uv export --frozen --no-dev --no-emit-project --format requirements-txt > /requirements.txt \
 && uv build --wheel --out-dir /wheels

FROM python:3.13-alpine
COPY --from=build /requirements.txt /wheels /install/
RUN pip install --no-cache-dir --require-hashes -r /install/requirements.txt \
 && pip install --no-cache-dir --no-deps /install/*.whl \
 && rm -rf /install
USER 1000
ENTRYPOINT ["taskmaster"]
