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

# engine_start KIT SETTINGS OUT: start the kit's engine with the settings file SETTINGS,
# writing start.sh's shell lines to OUT. Any engine of the kit already running is stopped
# first: it was started with other settings, and start.sh reads them only at start.
#
# An engine stopped uncleanly leaves a cache state the next engine cannot import; that engine
# wipes the state before it listens, which once took over the kit's default 90 s wait and
# failed a CI whose tests had passed. So the wait is ENGINE_START_TIMEOUT (default 600 s),
# and an engine that still does not start gets one more try with its state removed.
engine_start() {
  local kit=$1 settings=$2 out=$3 wait=${ENGINE_START_TIMEOUT:-600}
  "$kit/stop.sh" >/dev/null 2>&1 || true
  if ENGINE_CONFIG=$settings ENGINE_START_TIMEOUT=$wait "$kit/start.sh" > "$out"; then
    return 0
  fi
  echo "realengine: the engine did not start on its kept cache state; removing the state and starting it once more" >&2
  CLEAN_STATE=1 "$kit/stop.sh" >&2 || true
  ENGINE_CONFIG=$settings ENGINE_START_TIMEOUT=$wait "$kit/start.sh" > "$out"
}
