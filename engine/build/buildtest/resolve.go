package buildtest

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// unlocked plays cargo's resolution against the lock, as far as the fake needs it: the first
// dependency a manifest of the tree declares (not by path, not the workspace's) that Cargo.lock
// has no package for, with the manifest declaring it. Offline, from vendored sources, cargo
// cannot resolve it.
func unlocked() (manifest, dep string) {
	lock, _ := os.ReadFile("Cargo.lock")
	locked := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^name = "([^"]+)"`).FindAllStringSubmatch(string(lock), -1) {
		locked[m[1]] = true
	}
	var manifests []string
	filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && p != "." && (p == "vendor" || p == "target" || p == "patches" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.Name() == "Cargo.toml" {
			manifests = append(manifests, filepath.ToSlash(p))
		}
		return nil
	})
	sort.Strings(manifests)
	for _, m := range manifests {
		for _, d := range registryDeps(m) {
			if !locked[d] {
				return m, d
			}
		}
	}
	return "", ""
}

// depTable matches the headers of the tables that declare dependencies: "[dependencies]",
// "[build-dependencies]", "[workspace.dependencies]", or one dependency's own table
// ("[dependencies.anyhow]", group 2).
var depTable = regexp.MustCompile(`^\[((?:workspace\.)?(?:build-)?dependencies)(?:\.([A-Za-z0-9_-]+))?\]$`)

// registryDeps reads the crates a manifest depends on from a registry, in a line-by-line
// reading of the TOML shapes manifests use (this package imports only the standard library):
// "name = ..." lines of a dependency table and "[dependencies.NAME]" tables, skipping those
// with a path or taken from the workspace, a "package" rename followed.
func registryDeps(manifest string) []string {
	f, err := os.Open(manifest)
	if err != nil {
		return nil
	}
	defer f.Close()
	var deps []string
	inTable, own, ownName, ownLocal := false, false, "", false
	flush := func() {
		if own && !ownLocal {
			deps = append(deps, ownName)
		}
		own = false
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "#"); i >= 0 && !strings.Contains(line[:i], `"`) {
			line = strings.TrimSpace(line[:i])
		}
		if strings.HasPrefix(line, "[") {
			flush()
			m := depTable.FindStringSubmatch(line)
			inTable = m != nil && m[2] == ""
			if m != nil && m[2] != "" {
				own, ownName, ownLocal = true, m[2], false
			}
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		switch {
		case own && (key == "path" || key == "workspace"):
			ownLocal = true
		case own && key == "package":
			ownName = strings.Trim(value, `"`)
		case inTable:
			if strings.Contains(value, "path") || strings.Contains(value, "workspace = true") {
				continue
			}
			if p := regexp.MustCompile(`package\s*=\s*"([^"]+)"`).FindStringSubmatch(value); p != nil {
				key = p[1]
			}
			deps = append(deps, key)
		}
	}
	flush()
	return deps
}

// packageOf is "NAME vVERSION (DIR)" for the package a manifest declares, as cargo names it.
func packageOf(manifest string) string {
	b, _ := os.ReadFile(manifest)
	name, version := "", "0.0.0"
	inPackage := false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			inPackage = line == "[package]"
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok && inPackage {
			switch strings.TrimSpace(k) {
			case "name":
				name = strings.Trim(strings.TrimSpace(v), `"`)
			case "version":
				version = strings.Trim(strings.TrimSpace(v), `"`)
			}
		}
	}
	dir, _ := filepath.Abs(filepath.Dir(manifest))
	return name + " v" + version + " (" + dir + ")"
}
