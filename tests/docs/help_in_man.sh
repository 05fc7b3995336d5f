#!/usr/bin/env bash
# The man page and --help agree: every option --help all shows is documented in the man page and
# every option the man page's OPTIONS section lists is in it; --help, each group's page and each
# subcommand's fit one 80x24 screen, one option a line; the man page has its reference first (an
# option at most 8 lines), DETAILS and MEASUREMENTS after; the page
# renders without groff warnings; and the command lines of its EXAMPLES parse (with the sample
# target and corpus built, the first example and the audit examples run for real).
set -u
. "$(dirname "$0")/../e2e/lib.sh"
bin=${CD_BIN:?CD_BIN not set}
src=${CD_SRC:?CD_SRC not set}
page=$src/man/corpus-distill.1

# Every page fits one 80x24 screen: the short --help, each group's, merge's, restore's (--help
# all lists every option, one a line, and may be longer).
for pg in "" run budget output nightly targets info merge restore; do
  case $pg in
    merge|restore) text=$("$bin" "$pg" --help) ;;
    "") text=$("$bin" --help) ;;
    *) text=$("$bin" --help "$pg") ;;
  esac || err "--help $pg exited $?"
  lines=$(printf '%s\n' "$text" | wc -l)
  width=$(printf '%s\n' "$text" | awk '{ if (length($0) > m) m = length($0) } END { print m }')
  [ "$lines" -le 23 ] || err "--help $pg has $lines lines (at most 23 leave room for the prompt)"
  [ "$width" -le 80 ] || err "--help $pg has a line of $width columns"
done
help=$("$bin" --help all) || err "--help all exited $?"
width=$(printf '%s\n' "$help" | awk '{ if (length($0) > m) m = length($0) } END { print m }')
[ "$width" -le 80 ] || err "--help all has a line of $width columns"
# one option a line: no line of --help all names two long or two short options in its column
two=$(printf '%s\n' "$help" | grep -E '^  -' | cut -c1-25 |
      grep -E -- '--[a-z].*--[a-z]|(^|[ ,])-[a-zA-Z][ ,].*(^|[ ,])-[a-zA-Z]([ ,]|$)' || true)
[ -z "$two" ] || err "a line of --help all names several options: $two"
# the bare command prints the usage on stderr and exits 2
bare=$("$bin" 2>&1 >/dev/null)
[ $? = 2 ] && printf '%s\n' "$bare" | grep -q '^Usage: corpus-distill' ||
  err "the bare command does not print the usage with status 2"

# The man page source with roff's escaped hyphens made plain.
plain=$(sed 's/\\-/-/g' "$page")

# Every AFL++ variable the code reads has an entry in ENVIRONMENT and is named by --help all.
environ=$(awk '/^\.SH ENVIRONMENT/ { on = 1; next } /^\.SH/ { on = 0 } on' "$page")
for v in $(grep -rhoE '(getenv|cd_env_on)\("AFL_[A-Z_]+"\)' "$src/src" | sed -E 's/.*\("(.*)"\)/\1/' |
           sort -u); do
  grep -qE "^\.BR? $v( |\$)" <<<"$environ" || err "$v is read by the code but has no ENVIRONMENT entry"
  grep -qw -- "$v" <<<"$help" || err "$v is read by the code but --help all does not name it"
done

# Every option named in --help all (tokens like -o, --max-time) appears in the man page.
opts=$(printf '%s\n' "$help" | grep -oE '(^|[][ ,(|])--?[a-zA-Z][a-zA-Z-]*' | sed 's/^[][ ,(|]//' |
       sort -u)
[ -n "$opts" ] || err "no options found in --help"
for o in $opts; do
  printf '%s\n' "$plain" | grep -qE -- "(^|[^a-zA-Z-])$o([^a-zA-Z-]|$)" ||
    err "option $o is in --help all but not in the man page"
done

# Every option the OPTIONS section lists (.TP items) appears in --help all.
manopts=$(printf '%s\n' "$plain" | awk '/^\.SH OPTIONS/{on=1; next} /^\.SH/{on=0}
          on && prev ~ /^\.TP/ { print } { prev = $0 }' |
          grep -oE -- '--?[a-zA-Z][a-zA-Z-]*' | sort -u)
[ -n "$manopts" ] || err "no options found in the man page's OPTIONS section"
for o in $manopts; do
  [ "$o" = "--" ] && continue
  printf '%s\n' "$help" | grep -qE -- "(^|[^a-zA-Z-])$o([^a-zA-Z-]|$)" ||
    err "option $o is in the man page but not in --help all"
done

# audit's options: every one "audit --help" shows is listed (.TP) in the AUDIT section, and every
# option that section lists is in "audit --help" (-h aside, which is --help).
ahelp=$("$bin" audit --help) || err "audit --help exited $?"
aopts=$(printf '%s\n' "$ahelp" | sed -n 's/^  \(-\{1,2\}[a-zA-Z][a-zA-Z-]*\).*/\1/p' | sort -u)
[ "$(printf '%s\n' "$aopts" | wc -l)" -ge 8 ] || err "too few options found in audit --help"
sect=$(printf '%s\n' "$plain" | awk '/^\.SH AUDIT/{on=1; next} /^\.SH/{on=0}
       on && prev ~ /^\.TP/ { print } { prev = $0 }' | grep -oE -- '--?[a-zA-Z][a-zA-Z-]*' | sort -u)
for o in $aopts; do
  [ "$o" = --help ] && continue
  printf '%s\n' "$sect" | grep -qx -- "$o" ||
    err "audit option $o is in audit --help but not listed in the man page's AUDIT section"
done
for o in $sect; do
  [ "$o" = -h ] && continue
  printf '%s\n' "$aopts" | grep -qx -- "$o" ||
    err "audit option $o is in the man page's AUDIT section but not in audit --help"
done
lines=$(printf '%s\n' "$ahelp" | wc -l)
[ "$lines" -le 23 ] || err "audit --help has $lines lines"

# The reference comes first, a few lines an option; explanations and figures after it.
order=$(printf '%s\n' "$plain" | sed -n 's/^\.SH //p' | tr '\n' ' ')
case $order in
  *"OPTIONS EXIT STATUS ENVIRONMENT "*"EXAMPLES DETAILS "*"MEASUREMENTS FILES SEE ALSO "*) ;;
  *) err "sections out of order: $order" ;;
esac
if command -v man >/dev/null; then
  long=$(MANWIDTH=80 man -l "$page" 2>/dev/null | awk '/^OPTIONS/{on=1; next} /^[A-Z]/{on=0} on' |
         awk '/^       -/ { if (n > 8) print name; name=$0; n=0; next }
              /^   [A-Z]/ { if (n > 8) print name; name=""; n=0; next }
              name != "" && $0 != "" { n++ }
              END { if (n > 8) print name }')
  [ -z "$long" ] || err "OPTIONS entries over 8 lines at 80 columns: $long"
fi

# The page renders without warnings.
if command -v groff >/dev/null; then
  warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
  [ -z "$warnings" ] || err "groff warnings: $warnings"
else
  echo "groff not found: rendering not checked"
fi
if command -v man >/dev/null; then
  MANWIDTH=80 man -l "$page" >/dev/null 2>&1 || err "man -l failed"
fi

# The EXAMPLES command lines parse: each with --help inserted before "--" must exit 0.
examples=$(printf '%s\n' "$plain" | awk '/^\.SH EXAMPLES/{on=1} /^\.SH SEE ALSO/{on=0}
           on && /^\.EX/{ex=1; next} on && /^\.EE/{ex=0} on && ex' | grep '^corpus-distill ')
[ -n "$examples" ] || err "no corpus-distill command lines in EXAMPLES"
while IFS= read -r line; do
  read -r -a words <<<"$line"
  args=() inserted=0
  for w in "${words[@]:1}"; do
    if [ "$w" = "--" ] && [ $inserted = 0 ]; then args+=(--help); inserted=1; fi
    args+=("$w")
  done
  [ $inserted = 1 ] || args+=(--help)
  "$bin" "${args[@]}" >/dev/null 2>&1 || err "example does not parse: $line"
  # --help ends parsing early, so run it as written too, where none of its files exist: it may
  # fail on its inputs or target (3, 4), never as a usage error (2, say a missing -o).
  empty=$(mktemp -d)
  (cd "$empty" && timeout 20 "$bin" "${words[@]:1}" </dev/null >/dev/null 2>&1)
  rc=$?
  rm -rf "$empty"
  [ $rc != 2 ] || err "example is a usage error: $line"
done <<<"$examples"

# With the sample target and corpus, run the first example and the audit examples for real.
target=${CD_TARGETS:-}/sample_json
corpus=$src/sample_corpora/json.tar.zst
if [ "${CD_HAVE_AFL:-0}" = 1 ] && [ -x "$target" ] && [ -f "$corpus" ]; then
  tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
  first=$(printf '%s\n' "$examples" | head -n 1)
  read -r -a words <<<"$first"
  args=()
  for w in "${words[@]:1}"; do
    case $w in
      sample_corpora/*) args+=("$src/$w") ;;
      build/targets/*) args+=("$CD_TARGETS/${w#build/targets/}") ;;
      *) args+=("$w") ;;
    esac
  done
  (cd "$tmp" && mkdir -p out && "$bin" -q -j 1 --max-execs 2000 "${args[@]}")
  rc=$?
  { [ $rc = 0 ] || [ $rc = 1 ]; } || err "first example exited $rc: $first"
  m=$tmp/out/json-seeds.manifest.json
  if [ -f "$m" ]; then
    seed=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seeds"][0]["sha1"][:8])' "$m")
    label=$(python3 -c 'import json,sys; print(sorted(json.load(open(sys.argv[1]))["labels"])[0])' "$m")
    cp "$m" "$tmp/old.manifest.json"
    cp "$m" "$tmp/new.manifest.json"
    cp "$m" "$tmp/seeds.manifest.json"
    cp "$m" "$tmp/yesterday.manifest.json"
    cp "$m" "$tmp/triage.manifest.json"
    # audit reads the seeds beside the manifest, under the name the manifest gives them
    cp -r "$tmp/out/json-seeds" "$tmp/json-seeds"
    [ ! -d "$tmp/out/json-seeds.crashes" ] || cp -r "$tmp/out/json-seeds.crashes" "$tmp/"
    while IFS= read -r line; do
      case $line in corpus-distill\ audit*) ;; *) continue ;; esac
      line=${line//3f786850/$seed}
      line=${line//000123:4/$label}
      line=${line//build\/targets\//$CD_TARGETS/}
      read -r -a words <<<"$line"
      (cd "$tmp" && "$bin" "${words[@]:1}" >/dev/null) || err "audit example failed: $line"
    done <<<"$examples"
  else
    err "first example wrote no manifest"
  fi
else
  echo "sample target or corpus missing: examples only parsed"
fi

[ $fail = 0 ] && echo "ok"
exit $fail
