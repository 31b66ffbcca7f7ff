// tlogcheck checks a ledgerd node's transparency log with other people's code, as a third
// party would (docs/transparency.md): the checkpoint's signature with golang.org/x/mod's
// signed-note verifier, the checkpoint itself with transparency-dev/formats, ledgerd's own
// inclusion and consistency proofs with transparency-dev/merkle, and the tiles and entry
// bundles with filippo.io/torchwood's tile client (over x/mod's tlog); and, with `witness`
// (witness.go), the node as a witness of a log made with x/mod. It prints one "ok" line per check
// and exits 1 on the first failure.
//
//	tlogcheck -node URL -vkey VKEY -tx ID -from HEIGHT [-witness-vkey VKEY]
//	tlogcheck witness -node URL -log-skey SKEY -log-vkey VKEY -witness-vkey VKEY
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"

	"filippo.io/torchwood"
	"github.com/transparency-dev/formats/log"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// version is stamped by scripts/install-tlogcheck.sh: a hash of this program's sources.
var version = "dev"

var (
	showVer  = flag.Bool("version", false, "print the version and exit")
	node     = flag.String("node", "", "the node's URL, e.g. http://127.0.0.1:9984")
	prefix   = flag.String("prefix", "", "the tiles' URL prefix (default: <node>/api/v1/tlog/)")
	vkey     = flag.String("vkey", "", "the node's verifier key, as GET /api/v1/checkpoint/key answers it")
	txID     = flag.String("tx", "", "a committed transaction's id, whose inclusion proof is checked")
	fromH    = flag.Int("from", 1, "the height a consistency proof starts from")
	cosigner = flag.String("witness-vkey", "", "a witness's cosignature verifier key: the latest checkpoint must carry its cosignature")
	hasher   = rfc6962.DefaultHasher
	verifier note.Verifier
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "witness" {
		witnessMain(os.Args[2:])
		return
	}
	flag.Parse()
	if *showVer {
		fmt.Println("tlogcheck", version)
		return
	}
	if *prefix == "" {
		*prefix = *node + "/api/v1/tlog/"
	}
	var err error
	if verifier, err = note.NewVerifier(*vkey); err != nil {
		fail("the verifier key: %v", err)
	}
	latest := checkpoint("/api/v1/checkpoint")
	okf("checkpoint %s size %d signed by %s", latest.Origin, latest.Size, verifier.Name())
	if *cosigner != "" {
		checkCosignature(*cosigner)
	}
	tree := tlog.Tree{N: int64(latest.Size), Hash: tlog.Hash(latest.Hash)}
	checkTiles(tree)
	checkInclusion(latest)
	checkConsistency()
}

// checkpoint fetches a checkpoint, opens its note with x/mod and parses it with formats/log.
func checkpoint(path string) *log.Checkpoint {
	body := fetch(*node + path)
	if _, err := note.Open(body, note.VerifierList(verifier)); err != nil {
		fail("x/mod/sumdb/note does not open %s: %v", path, err)
	}
	cp, _, _, err := log.ParseCheckpoint(body, verifier.Name(), verifier)
	if err != nil {
		fail("transparency-dev/formats does not parse %s: %v", path, err)
	}
	return cp
}

// checkTiles reads the tree through its tiles: the root from the hash tiles, every entry from
// the entry bundles (each checked against the tiles by torchwood), and a record proof.
func checkTiles(tree tlog.Tree) {
	ctx := context.Background()
	fetcher, err := torchwood.NewTileFetcher(*prefix)
	if err != nil {
		fail("tile fetcher: %v", err)
	}
	hashes := torchwood.TileHashReaderWithContext(ctx, tree, fetcher)
	root, err := tlog.TreeHash(tree.N, hashes)
	if err != nil || root != tree.Hash {
		fail("the tiles' tree hash is not the checkpoint's root: %v", err)
	}
	okf("tiles: tree hash of %d leaves equals the checkpoint's root", tree.N)
	client, err := torchwood.NewClient(fetcher)
	if err != nil {
		fail("tile client: %v", err)
	}
	var count int64
	for count < tree.N {
		before := count
		for i, entry := range client.Entries(ctx, tree, count) {
			if i != count || len(entry) != 45 || entry[0] != 'B' {
				fail("entry %d is not a 45-byte block leaf", i)
			}
			count++
		}
		if err := client.Err(); err != nil {
			fail("entries: %v", err)
		}
		if count == before {
			fail("entries stopped at %d of %d", count, tree.N)
		}
	}
	okf("tiles: %d entry bundles' entries verified against the hash tiles", count)
	last := tree.N - 1
	entry, recordProof, err := client.Entry(ctx, tree, last)
	if err != nil || tlog.CheckRecord(recordProof, tree.N, tree.Hash, last, tlog.RecordHash(entry)) != nil {
		fail("entry %d's record proof: %v", last, err)
	}
	okf("tiles: record proof of entry %d", last)
}

type txProof struct {
	TransactionID string `json:"transaction_id"`
	Block         struct {
		Height uint64   `json:"height"`
		Index  uint64   `json:"index"`
		Size   uint64   `json:"size"`
		Path   []string `json:"path"`
	} `json:"block"`
	History struct {
		Index uint64   `json:"index"`
		Size  uint64   `json:"size"`
		Path  []string `json:"path"`
	} `json:"history"`
	AppHash string `json:"app_hash"`
}

// checkInclusion checks ledgerd's proof of a transaction with transparency-dev/merkle: its
// block's root from the transaction's leaf, the block's leaf ("B" || height || count || root)
// in the history tree whose root a signed checkpoint of the proof's size gives.
func checkInclusion(latest *log.Checkpoint) {
	var p txProof
	if err := json.Unmarshal(fetch(*node+"/api/v1/proofs/transactions/"+*txID), &p); err != nil {
		fail("the proof: %v", err)
	}
	blockRoot, err := proof.RootFromInclusionProof(hasher, p.Block.Index, p.Block.Size, hasher.HashLeaf([]byte("T"+*txID)), hexes(p.Block.Path))
	if err != nil {
		fail("the block path: %v", err)
	}
	leaf := make([]byte, 0, 45)
	leaf = append(leaf, 'B')
	leaf = binary.BigEndian.AppendUint64(leaf, p.Block.Height)
	leaf = binary.BigEndian.AppendUint32(leaf, uint32(p.Block.Size))
	leaf = append(leaf, blockRoot...)
	cp := checkpoint(fmt.Sprintf("/api/v1/checkpoint?size=%d", p.History.Size))
	if err := proof.VerifyInclusion(hasher, p.History.Index, p.History.Size, hasher.HashLeaf(leaf), hexes(p.History.Path), cp.Hash); err != nil {
		fail("the history path against the signed checkpoint of size %d: %v", p.History.Size, err)
	}
	if appHash(cp) != p.AppHash {
		fail("the checkpoint's size and root do not make the proof's app hash")
	}
	okf("inclusion: transaction %s in block %d, leaf %d of the signed tree of %d (latest %d)", *txID, p.Block.Height, p.History.Index, p.History.Size, latest.Size)
}

type point struct {
	Size uint64 `json:"size"`
	Root string `json:"root"`
}

// checkConsistency checks ledgerd's consistency proof between the signed checkpoints of its
// two sizes with transparency-dev/merkle, and the same with x/mod's proof built from the tiles.
func checkConsistency() {
	var c struct {
		From point    `json:"from"`
		To   point    `json:"to"`
		Path []string `json:"path"`
	}
	if err := json.Unmarshal(fetch(fmt.Sprintf("%s/api/v1/proofs/consistency?from=%d", *node, *fromH)), &c); err != nil {
		fail("the consistency proof: %v", err)
	}
	older := checkpoint(fmt.Sprintf("/api/v1/checkpoint?size=%d", c.From.Size))
	newer := checkpoint(fmt.Sprintf("/api/v1/checkpoint?size=%d", c.To.Size))
	if err := proof.VerifyConsistency(hasher, older.Size, newer.Size, hexes(c.Path), older.Hash, newer.Hash); err != nil {
		fail("consistency %d -> %d: %v", older.Size, newer.Size, err)
	}
	okf("consistency: signed tree of %d extends the signed tree of %d", newer.Size, older.Size)
	tree := tlog.Tree{N: int64(newer.Size), Hash: tlog.Hash(newer.Hash)}
	fetcher, _ := torchwood.NewTileFetcher(*prefix)
	treeProof, err := tlog.ProveTree(tree.N, int64(older.Size), torchwood.TileHashReaderWithContext(context.Background(), tree, fetcher))
	if err != nil || tlog.CheckTree(treeProof, tree.N, tree.Hash, int64(older.Size), tlog.Hash(older.Hash)) != nil {
		fail("consistency from the tiles: %v", err)
	}
	okf("consistency: the same from the tiles (x/mod tlog.ProveTree, CheckTree)")
}

// appHash is ledgerd's app hash v1 of a checkpoint: SHA-256("ledgerd/app-hash/v1" || u64 size || root).
func appHash(cp *log.Checkpoint) string {
	h := sha256.New()
	h.Write([]byte("ledgerd/app-hash/v1"))
	h.Write(binary.BigEndian.AppendUint64(nil, cp.Size))
	h.Write(cp.Hash)
	return hex.EncodeToString(h.Sum(nil))
}

func hexes(list []string) [][]byte {
	out := make([][]byte, len(list))
	for i, s := range list {
		b, err := hex.DecodeString(s)
		if err != nil {
			fail("not hex: %q", s)
		}
		out[i] = b
	}
	return out
}

func fetch(url string) []byte {
	resp, err := http.Get(url)
	if err != nil {
		fail("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		fail("GET %s: %d %s %v", url, resp.StatusCode, bytes.TrimSpace(body), err)
	}
	return body
}

func okf(format string, args ...any) { fmt.Printf("ok "+format+"\n", args...) }

func fail(format string, args ...any) {
	fmt.Printf("FAIL "+format+"\n", args...)
	os.Exit(1)
}
