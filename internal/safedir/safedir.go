// Package safedir opens and creates the directories latlab writes in
// (an output file's directory, --png's directory, the knob journal's
// state directory) so that a local user cannot steer root's writes
// elsewhere through a directory or a link on the way.
//
// On Linux the path is walked from / one component at a time, each
// opened relative to the one before with O_NOFOLLOW, so what was checked
// is what is used whatever the names become meanwhile. Running as root,
// every directory on the way must be trusted (sshd's safe_path rule for
// authorized_keys, applied from / down):
//
//   - it is owned by root;
//   - it is not writable by group or others, unless it is sticky (like
//     /tmp): there others may add names but cannot rename or remove
//     root's, and the next component must be root's anyway;
//   - a symbolic link on the way is followed only when root owns it (a
//     link's owner can repoint it) and it lies in a directory that
//     passed these rules (nobody else could have planted or replaced it);
//     the walk goes on from where it points, checked the same way;
//   - ".." is taken by name (as filepath.Clean takes it), never through a
//     link's target.
//
// openat2(2) with RESOLVE_NO_SYMLINKS would refuse every link, root's own
// (/var/run -> /run) too, and checks no owner; so each component is
// opened by openat with O_PATH|O_NOFOLLOW|O_DIRECTORY, which every Linux
// latlab runs on has, and a link is judged and followed by hand.
//
// A directory that does not exist is created (when asked) only after its
// parent passed the rules, with mkdirat relative to the parent's
// descriptor, and is then opened without following a link like any
// other: nothing is ever created inside a directory that was refused.
// Other users are not checked against: the kernel's permissions already
// keep them to what they can write.
//
// On Windows directories are created with os.MkdirAll; the target file
// itself is checked by outfile, and the state directory by its ACL.
package safedir

import (
	"fmt"
)

// Refusal is a directory (or a link) on the way that root must not
// trust: callers say it in their own words.
type Refusal struct {
	Dir      string // the directory or link refused, as named on the way
	Link     bool   // Dir is a symbolic link owned by Uid
	Uid      uint32 // Dir's owner, when that is the reason (not 0)
	Writable bool   // Dir is writable by group or others and not sticky
}

func (r *Refusal) Error() string {
	switch {
	case r.Link:
		return fmt.Sprintf("%s is a symbolic link owned by uid %d, who can repoint it; give a path without it", r.Dir, r.Uid)
	case r.Uid != 0:
		return fmt.Sprintf("%s is owned by uid %d, who could swap what lies in it; fix: chown root %s", r.Dir, r.Uid, r.Dir)
	}
	return fmt.Sprintf("%s is writable by group or others and not sticky; fix: chmod go-w %s", r.Dir, r.Dir)
}
