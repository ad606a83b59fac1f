# The krtt image: the controllers of config/ (krtt run, ipam, propagate, inventory) from the
# bundled command. Build from the repository root:
#
#   docker build -t ghcr.io/krtt/krtt:0.1.0 .
#
# Two stages: `build` compiles and bundles the sources (`npm run build`), and the runtime stage
# holds only what `node bin/krtt.js` loads: the bundle in dist/cli, which carries its
# dependencies, so the image has no node_modules. docs/image.md says what the image holds and
# why. e2e/image/image-layout.test.ts carries out this file's COPY and RUN lines in a temporary
# folder and runs the image's command from the result, so RUN lines name paths relative to
# WORKDIR only.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Without scripts: the `node` devDependency's install script would fetch a second Node 24 that
# this image already has. The build runs below, once the sources are in.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json LICENSE ./
COPY scripts/bundle.ts ./scripts/
COPY bin ./bin
COPY api ./api
COPY core ./core
COPY shell ./shell
COPY sim ./sim
COPY spec ./spec
# The bundle of the command and its licence notices (the half of `npm run build` that the command
# needs; the other half, tsc's build of the library, is for programs that import krtt). Its
# source maps are left out: the process loads them only with --enable-source-maps, which krtt is
# not run with.
RUN node scripts/bundle.ts \
 && find dist/cli -name '*.map' -delete

FROM node:24-bookworm-slim
# package.json's version; a release passes its own: --build-arg VERSION=...
ARG VERSION=0.1.0
LABEL org.opencontainers.image.title="krtt" \
      org.opencontainers.image.description="Kubernetes Reconciler Transition Tables: Cluster API's core manager and krtt's multi-cluster controllers" \
      org.opencontainers.image.source="https://github.com/krtt/krtt" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.version="${VERSION}"
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json /app/LICENSE ./
COPY --from=build /app/bin/krtt.js /app/bin/node-version.js ./bin/
COPY --from=build /app/dist/cli ./dist/cli
# The files stay root's and read-only to the process: config/'s Pods run as this user with a
# read-only root filesystem.
USER 65532:65532
# Metrics (HTTPS), health probes and webhooks of `krtt run`, as config/manager/manager.yaml names them.
EXPOSE 8443 9440 9443
# Node itself is the container's process, not npm or npx (which do not pass signals on): the
# SIGTERM of a Pod's stop reaches krtt, which handles it and ends cleanly, exit code 0. The
# Deployments of config/ give the command and its flags as args.
ENTRYPOINT ["node", "bin/krtt.js"]
CMD ["run"]
