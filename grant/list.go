package grant

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Listed is a grant in a listing with its id (its place in the list).
type Listed struct {
	ID int64
	Grant
}

// Page is one page of a listing; NextCursor 0 means it was the last.
type Page struct {
	Items      []Listed
	NextCursor int64
}

// scanFactor bounds how many list entries one page reads: limit times it
// (expired or filtered entries are skipped; the cursor continues after
// the last one read).
const scanFactor = 4

// List lists the grants visible to who under f at now. With f.RID and
// f.Scope set and who the RID's owner or a manager there, every live grant
// of that RID and scope (the cursor is an offset into them, by expiry);
// otherwise who's own live grants (its list, by id; the cursor is the last
// id returned). Expired grants are never listed; a list entry whose grant
// is gone is removed.
func (s *Store) List(ctx context.Context, who string, f Filter, now time.Time) (*Page, error) {
	if f.Limit <= 0 {
		f.Limit = DefaultLimit
	}
	if f.RID != nil && f.Scope != 0 {
		g, err := s.Get(ctx, *f.RID, f.Scope, who)
		if err != nil {
			return nil, err
		}
		if MayManage(g, who, *f.RID, f.Scope, now) {
			return s.listRID(ctx, f, now)
		}
	}
	out := &Page{Items: []Listed{}}
	keys := listKeys(who)
	scan := int64(f.Limit * scanFactor)
	entries, err := s.rdb.ZRangeByScoreWithScores(ctx, keys[1], &redis.ZRangeBy{Min: "(" + strconv.FormatInt(f.Cursor, 10), Max: "+inf", Count: scan + 1}).Result()
	if err != nil {
		return nil, fmt.Errorf("grants of %s: %w", who, err)
	}
	more := int64(len(entries)) > scan
	if more {
		entries = entries[:scan]
	}
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.MapStringStringCmd, len(entries))
	refs := make([]struct {
		rid   RID
		scope uint8
	}, len(entries))
	for i, e := range entries {
		m, _ := e.Member.(string)
		sc, r, ok := strings.Cut(m, ":")
		rid, err := ParseRID(r)
		if !ok || err != nil || (sc != "1" && sc != "2") {
			return nil, fmt.Errorf("grants of %s: malformed list entry %q", who, m)
		}
		refs[i].rid, refs[i].scope = rid, uint8(sc[0]-'0')
		cmds[i] = pipe.HGetAll(ctx, Key(rid, refs[i].scope, who))
	}
	if len(entries) > 0 {
		if _, err := pipe.Exec(ctx); err != nil {
			return nil, fmt.Errorf("grants of %s: %w", who, err)
		}
	}
	var gone []any
	for i, e := range entries {
		g, err := fromHash(refs[i].rid, refs[i].scope, who, cmds[i].Val())
		if err != nil {
			return nil, err
		}
		if g == nil {
			gone = append(gone, e.Member)
			continue
		}
		if !Live(g, now) || !f.Match(g) {
			continue
		}
		out.Items = append(out.Items, Listed{ID: int64(e.Score), Grant: *g})
		if len(out.Items) == f.Limit {
			more = more || i < len(entries)-1
			out.NextCursor = int64(e.Score)
			break
		}
	}
	if len(gone) > 0 {
		s.rdb.ZRem(ctx, keys[1], gone...) // best effort: a later listing removes them too
	}
	if more && out.NextCursor == 0 && len(entries) > 0 {
		out.NextCursor = int64(entries[len(entries)-1].Score)
	}
	if !more {
		out.NextCursor = 0
	}
	return out, nil
}

// listRID lists every live grant of f.RID in f.Scope (its owner's or a
// manager's view).
func (s *Store) listRID(ctx context.Context, f Filter, now time.Time) (*Page, error) {
	out := &Page{Items: []Listed{}}
	names, err := s.rdb.ZRangeByScore(ctx, granteesKey(*f.RID, f.Scope), &redis.ZRangeBy{
		Min: "(" + strconv.FormatInt(now.UnixMilli(), 10), Max: "+inf", Offset: f.Cursor, Count: int64(f.Limit) + 1}).Result()
	if err != nil {
		return nil, fmt.Errorf("grants of %s: %w", f.RID, err)
	}
	more := len(names) > f.Limit
	if more {
		names = names[:f.Limit]
		out.NextCursor = f.Cursor + int64(f.Limit)
	}
	pipe := s.rdb.Pipeline()
	cmds := make([]*redis.MapStringStringCmd, len(names))
	for i, n := range names {
		cmds[i] = pipe.HGetAll(ctx, Key(*f.RID, f.Scope, n))
	}
	if len(names) > 0 {
		if _, err := pipe.Exec(ctx); err != nil {
			return nil, fmt.Errorf("grants of %s: %w", f.RID, err)
		}
	}
	for i, n := range names {
		g, err := fromHash(*f.RID, f.Scope, n, cmds[i].Val())
		if err != nil {
			return nil, err
		}
		if Live(g, now) && f.Match(g) {
			out.Items = append(out.Items, Listed{ID: f.Cursor + int64(i) + 1, Grant: *g})
		}
	}
	return out, nil
}
