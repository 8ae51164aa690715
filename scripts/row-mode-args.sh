# row-mode-args.sh — sourced by perf-campaigns.sh and instructions-figures.sh: reads their
# common arguments after ROW.toml N into mode ("", aa or variant), variant and out, and checks
# the row file. $script names the caller in errors.
mode= variant= out=
while [ $# -gt 0 ]; do
  case $1 in
    --aa) mode=aa ;;
    --variant) mode=variant variant=${2:?--variant needs a name}; shift ;;
    --out) out=${2:?--out needs a folder}; shift ;;
    *) echo "$script: unknown argument $1" >&2; exit 3 ;;
  esac
  shift
done
[ -f "$row" ] || { echo "$script: $row: no such row file" >&2; exit 3; }
