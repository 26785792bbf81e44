# Sourced by the install scripts before they run `npm install` into a folder of their own.
#
# When `npm start` or `npm test` runs an install script, npm has exported its own state into the
# environment: `npm_config_user_agent` (naming npm's Node, v20), `npm_config_prefix`,
# `npm_config_node_gyp`, `npm_node_execpath`, `NODE` and the project's node_modules/.bin on PATH.
# A nested npm reads every `npm_config_*` variable as its own configuration, so it would pass the
# outer user agent on to install scripts (code-server's postinstall reads the Node major version
# from it and refuses "v20" although Node 24 runs it) and build with the outer npm's node-gyp. The
# nested install must see what it would see from a shell: so drop npm's exported state, keep only
# the settings a user sets to reach a registry (registry, cache, proxies, certificates, offline).
npm_child_env() {
  local name keep='^npm_config_(registry|cache|userconfig|globalconfig|proxy|https_proxy|http_proxy|noproxy|no_proxy|strict_ssl|cafile|ca|cert|key|offline|prefer_offline|prefer_online|fetch_[a-z_]+|_?auth[a-z_]*|@[^=]*:registry|//.*)$'
  while IFS= read -r name; do
    shopt -s nocasematch
    if [[ "$name" =~ ^npm_ ]] && ! [[ "$name" =~ $keep ]]; then unset "$name"; fi
    shopt -u nocasematch
  done < <(compgen -e)
  unset NODE INIT_CWD
  # PATH without the node_modules/.bin folders npm prepends (the project's tools, npm's node-gyp).
  local entry out=""
  local IFS=':'
  for entry in $PATH; do
    case "$entry" in
      */node_modules/.bin | */node-gyp-bin | "") ;;
      *) out="${out:+$out:}$entry" ;;
    esac
  done
  PATH="$out"
  export PATH
}
