package main

// The witness check: a log made with golang.org/x/mod (sumdb/note signs its checkpoints,
// sumdb/tlog builds its tree and consistency proofs) asks a ledgerd node to witness it, as C2SP
// tlog-witness says, and verifies the cosignatures with transparency-dev/formats' cosignature
// verifier. It prints one "ok" line per check and exits 1 on the first failure.
//
//	tlogcheck witness -node URL -log-skey SKEY -log-vkey VKEY -witness-vkey VKEY

import (
	"bytes"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strings"

	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

// memoryLog is a tlog tree kept in memory: its stored hashes, as tlog.StoredHashes makes them.
type memoryLog struct{ hashes []tlog.Hash }

func (l *memoryLog) ReadHashes(indexes []int64) ([]tlog.Hash, error) {
	out := make([]tlog.Hash, len(indexes))
	for i, x := range indexes {
		out[i] = l.hashes[x]
	}
	return out, nil
}

func witnessMain(args []string) {
	flags := flag.NewFlagSet("witness", flag.ExitOnError)
	nodeURL := flags.String("node", "", "the witnessing node's URL")
	logSkey := flags.String("log-skey", "", "the log's signer key (x/mod note form)")
	logVkey := flags.String("log-vkey", "", "the log's verifier key")
	witnessVkey := flags.String("witness-vkey", "", "the node's cosignature verifier key")
	_ = flags.Parse(args)
	signer, err := note.NewSigner(*logSkey)
	if err != nil {
		fail("the log key: %v", err)
	}
	logVerifier, err := note.NewVerifier(*logVkey)
	if err != nil {
		fail("the log's verifier key: %v", err)
	}
	cosigVerifier, err := fnote.NewVerifierForCosignatureV1(*witnessVkey)
	if err != nil {
		fail("transparency-dev/formats does not read the witness key: %v", err)
	}
	log := &memoryLog{}
	log.grow(5, "")
	cosigned(*nodeURL, signer, logVerifier, cosigVerifier, log, 0)
	okf("witness: cosigned the log's first checkpoint (size 5), verified by transparency-dev/formats")
	if body := post(*nodeURL, request(signer, log, 0), 409); body != "5\n" {
		fail("409 body %q, not the size cosigned", body)
	}
	okf("witness: an old size of 0 is answered 409 with the size cosigned, 5")
	log.grow(4, "")
	cosigned(*nodeURL, signer, logVerifier, cosigVerifier, log, 5)
	okf("witness: cosigned size 9 with the consistency proof from 5 (x/mod tlog.ProveTree)")
	fork := &memoryLog{}
	fork.grow(6, "")
	fork.grow(6, "fork")
	post(*nodeURL, request(signer, fork, 9), 422)
	okf("witness: refused a fork of the log (another tree from leaf 6) with 422")
}

// grow appends n leaves whose data is prefix followed by the leaf's index.
func (l *memoryLog) grow(n int, prefix string) {
	for i := 0; i < n; i++ {
		index := l.size()
		hashes, err := tlog.StoredHashes(index, []byte(fmt.Sprintf("%s%d", prefix, index)), l)
		if err != nil {
			fail("tlog.StoredHashes: %v", err)
		}
		l.hashes = append(l.hashes, hashes...)
	}
}

// size is the number of leaves: the stored hashes of n leaves are tlog.StoredHashCount(n).
func (l *memoryLog) size() int64 {
	n := int64(0)
	for tlog.StoredHashCount(n) < int64(len(l.hashes)) {
		n++
	}
	return n
}

// request is an add-checkpoint body: the old size, the proof from it, and the signed checkpoint.
func request(signer note.Signer, l *memoryLog, old int64) string {
	n := l.size()
	root, err := tlog.TreeHash(n, l)
	if err != nil {
		fail("tlog.TreeHash: %v", err)
	}
	text := fmt.Sprintf("%s\n%d\n%s\n", signer.Name(), n, base64.StdEncoding.EncodeToString(root[:]))
	signed, err := note.Sign(&note.Note{Text: text}, signer)
	if err != nil {
		fail("note.Sign: %v", err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "old %d\n", old)
	if old > 0 {
		proof, err := tlog.ProveTree(n, old, l)
		if err != nil {
			fail("tlog.ProveTree: %v", err)
		}
		for _, h := range proof {
			fmt.Fprintf(&b, "%s\n", base64.StdEncoding.EncodeToString(h[:]))
		}
	}
	b.WriteString("\n")
	b.Write(signed)
	return b.String()
}

// cosigned posts the checkpoint and opens it, with the witness's answer appended, with both keys.
// checkCosignature opens the node's latest checkpoint with x/mod's note and transparency-dev/formats'
// cosignature verifier for vkey: the witness's cosignature must be there and verify.
func checkCosignature(vkey string) {
	cosig, err := fnote.NewVerifierForCosignatureV1(vkey)
	if err != nil {
		fail("transparency-dev/formats does not read the witness key: %v", err)
	}
	n, err := note.Open(fetch(*node+"/api/v1/checkpoint"), note.VerifierList(verifier, cosig))
	if err != nil {
		fail("the checkpoint does not open: %v", err)
	}
	for _, s := range n.Sigs {
		if s.Name == cosig.Name() && s.Hash == cosig.KeyHash() {
			okf("checkpoint cosigned by %s, verified by transparency-dev/formats", cosig.Name())
			return
		}
	}
	fail("no verified cosignature by %s", cosig.Name())
}

func cosigned(nodeURL string, signer note.Signer, logVerifier, cosig note.Verifier, l *memoryLog, old int64) {
	body := request(signer, l, old)
	answer := post(nodeURL, body, 200)
	signed := body[strings.Index(body, "\n\n")+2:]
	n, err := note.Open([]byte(signed+answer), note.VerifierList(logVerifier, cosig))
	if err != nil {
		fail("the cosigned checkpoint does not open: %v", err)
	}
	for _, s := range n.Sigs {
		if s.Name == cosig.Name() && s.Hash == cosig.KeyHash() {
			return
		}
	}
	fail("no verified cosignature by %s", cosig.Name())
}

func post(nodeURL, body string, status int) string {
	resp, err := http.Post(nodeURL+"/api/v1/witness/add-checkpoint", "text/plain", bytes.NewBufferString(body))
	if err != nil {
		fail("POST add-checkpoint: %v", err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		fail("POST add-checkpoint: %d %s, not %d", resp.StatusCode, answer, status)
	}
	return string(answer)
}
