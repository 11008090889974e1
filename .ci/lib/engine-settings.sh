# engine_settings prints the engine kit's settings file ($1: its local-registry settings)
# with a garbage collector that keeps the suite's builds. Dagger's default prunes its cache
# whenever less than 20% of the disk is free, even during a run; tests that compare two
# calls' digests (release-push and the platform jobs) rely on the second call reusing the
# first one's builds, so on a fuller disk they failed. The cache may still use up to 60% of
# the disk and leaves 5 GB free.
engine_settings() {
  local settings=$1 rest sep=,
  if [ "$(head -c1 "$settings" 2>/dev/null)" != "{" ]; then
    echo "realengine: $settings: not a JSON object starting with {; the engine kit's settings file was expected" >&2
    return 1
  fi
  if grep -q '"gc"' "$settings"; then
    echo "realengine: $settings already sets \"gc\"; remove it there, the suite sets its own" >&2
    return 1
  fi
  rest=$(tail -c +2 "$settings")
  [[ $rest =~ ^[[:space:]]*\}[[:space:]]*$ ]] && sep=
  printf '{"gc": {"reservedSpace": "10GB", "minFreeSpace": "5GB", "maxUsedSpace": "60%%"}%s%s\n' "$sep" "$rest"
}
