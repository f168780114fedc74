#!/usr/bin/env bash
# make image: an OCI image of xgr built without a Docker daemon, with ko
# (go install github.com/google/ko@KO_VERSION into .tools/bin when missing),
# written as a docker-loadable tarball bin/xgr-image.tar (localhost/xgr:latest).
#
# ko normally pulls its base image from a registry; this machine reaches
# none, so the base is made here: one layer with the host's CA bundle
# (Debian package ca-certificates), /etc/passwd and /etc/group naming the
# nonroot user 65532, and an empty /tmp; written as an OCI layout into
# ko's on-disk cache (KOCACHE), where ko finds it by digest and pulls
# nothing.
#
# The image's config carries the OCI annotations as labels (title,
# description, source, licenses, version, revision, created: the commit's
# time, so that a rebuild of one commit is the same image), given to ko with
# --image-label, and EXPOSE 9464/tcp (xgr run's --listen: /metrics, /healthz,
# /readyz, the console). ko has no option for exposed ports; they are set in
# the base image's config made below, which ko keeps.
set -euo pipefail

KO_VERSION=v0.19.1
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
ko="${KO:-$root/.tools/bin/ko}"
if ! [ -x "$ko" ] || ! "$ko" version 2>/dev/null | grep -qx "${KO_VERSION#v}"; then
  echo "image: installing ko $KO_VERSION into .tools/bin (go install)" >&2
  GOBIN="$root/.tools/bin" go install "github.com/google/ko@$KO_VERSION"
fi
certs=/etc/ssl/certs/ca-certificates.crt
[ -f "$certs" ] || { echo "image: $certs missing: apt-get install ca-certificates" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cache="$work/kocache"
layout="$cache/img"
mkdir -p "$layout/blobs/sha256" "$work/rootfs/etc/ssl/certs" "$work/rootfs/tmp"
cp "$certs" "$work/rootfs/etc/ssl/certs/ca-certificates.crt"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' >"$work/rootfs/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$work/rootfs/etc/group"
chmod 1777 "$work/rootfs/tmp"
# A reproducible layer: fixed owner, mode and time, sorted names.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$work/rootfs" -cf "$work/layer.tar" etc tmp
diffid=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
gzip -n -9 <"$work/layer.tar" >"$work/layer.tar.gz"
blob() { # blob FILE: store FILE as a blob, print its digest and size
  local d s
  d=$(sha256sum "$1" | cut -d' ' -f1)
  s=$(stat -c %s "$1")
  cp "$1" "$layout/blobs/sha256/$d"
  echo "$d $s"
}
read -r ldig lsize < <(blob "$work/layer.tar.gz")
cat >"$work/config.json" <<JSON
{"architecture":"amd64","os":"linux","created":"1970-01-01T00:00:00Z","config":{"User":"65532","ExposedPorts":{"9464/tcp":{}},"Env":["PATH=/usr/local/bin:/usr/bin:/bin","SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"]},"rootfs":{"type":"layers","diff_ids":["sha256:$diffid"]}}
JSON
read -r cdig csize < <(blob "$work/config.json")
cat >"$work/manifest.json" <<JSON
{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:$cdig","size":$csize},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:$ldig","size":$lsize}]}
JSON
read -r mdig msize < <(blob "$work/manifest.json")
echo '{"imageLayoutVersion":"1.0.0"}' >"$layout/oci-layout"
cat >"$layout/index.json" <<JSON
{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:$mdig","size":$msize}]}
JSON

mkdir -p bin
version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
revision=$(git rev-parse HEAD 2>/dev/null || true)
created=$(git log -1 --format=%cI 2>/dev/null || echo 1970-01-01T00:00:00Z)
labels=(
  --image-label "org.opencontainers.image.title=xgr"
  --image-label "org.opencontainers.image.description=XRC-729 orchestration sidecar on Redis"
  --image-label "org.opencontainers.image.source=https://github.com/xgr-sidecar/xgr"
  --image-label "org.opencontainers.image.licenses=Apache-2.0"
  --image-label "org.opencontainers.image.version=$version"
  --image-label "org.opencontainers.image.revision=$revision"
  --image-label "org.opencontainers.image.created=$created"
)
KOCACHE="$cache" KO_DOCKER_REPO=localhost/xgr VERSION="$version" REVISION="$revision" \
  KO_DEFAULTBASEIMAGE="xgr.invalid/base@sha256:$mdig" \
  "$ko" build "${labels[@]}" --bare --push=false --platform linux/amd64 --tarball bin/xgr-image.tar --tags latest ./cmd/xgr >&2
echo "image: bin/xgr-image.tar (localhost/xgr:latest, version $version; docker load < bin/xgr-image.tar)" >&2
