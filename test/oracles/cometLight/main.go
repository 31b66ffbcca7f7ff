// CometBFT's own light client (github.com/cometbft/cometbft/light, the pinned v0.38) as an oracle
// for ledgerd's verifier (src/proofs/lightBlock.ts): it reads a genesis, the light blocks that
// GET /api/v1/proofs/validator-changes served and a proof's signed header, trusts the first light
// block if more than two thirds of the genesis set signed it (as the verifier's first step), then
// verifies each later light block with light.Verify (adjacent or skipping, trust level 1/3) and
// the proof's header with the last set. Prints "ok ..." and exits 0, or the error and exits 1.
// Built and run by test/e2e/cometbft/elections.test.ts.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	cmtjson "github.com/cometbft/cometbft/libs/json"
	"github.com/cometbft/cometbft/light"
	"github.com/cometbft/cometbft/types"
)

type lightBlock struct {
	SignedHeader json.RawMessage `json:"signed_header"`
	ValidatorSet struct {
		Validators json.RawMessage `json:"validators"`
	} `json:"validator_set"`
}

type input struct {
	Genesis          json.RawMessage `json:"genesis"`
	ValidatorChanges struct {
		LightBlocks []lightBlock `json:"light_blocks"`
	} `json:"validator_changes"`
	Proof struct {
		SignedHeader json.RawMessage `json:"signed_header"`
	} `json:"proof"`
}

// A trusting period long enough for any test network: expiry is the verifier's own test.
const trustingPeriod = 100000 * time.Hour
const maxClockDrift = 10 * time.Second

func fail(format string, args ...any) {
	fmt.Printf(format+"\n", args...)
	os.Exit(1)
}

func decode(raw json.RawMessage, validators json.RawMessage) (*types.SignedHeader, *types.ValidatorSet) {
	var sh types.SignedHeader
	if err := cmtjson.Unmarshal(raw, &sh); err != nil {
		fail("signed header: %v", err)
	}
	if validators == nil {
		return &sh, nil
	}
	var vals []*types.Validator
	if err := cmtjson.Unmarshal(validators, &vals); err != nil {
		fail("validators: %v", err)
	}
	return &sh, types.NewValidatorSet(vals)
}

func main() {
	var in input
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		fail("input: %v", err)
	}
	genesis, err := types.GenesisDocFromJSON(in.Genesis)
	if err != nil {
		fail("genesis: %v", err)
	}
	genesisVals := make([]*types.Validator, 0, len(genesis.Validators))
	for _, v := range genesis.Validators {
		genesisVals = append(genesisVals, types.NewValidator(v.PubKey, v.Power))
	}
	trustedVals := types.NewValidatorSet(genesisVals)
	blocks := in.ValidatorChanges.LightBlocks
	if len(blocks) == 0 {
		fail("no light blocks")
	}
	trusted, vals := decode(blocks[0].SignedHeader, blocks[0].ValidatorSet.Validators)
	if err := trusted.ValidateBasic(genesis.ChainID); err != nil {
		fail("height %d: %v", trusted.Height, err)
	}
	if !vals.IsNilOrEmpty() && string(vals.Hash()) != string(trustedVals.Hash()) {
		fail("height %d: the first light block's set is not the genesis set", trusted.Height)
	}
	if err := trustedVals.VerifyCommitLight(genesis.ChainID, trusted.Commit.BlockID, trusted.Height, trusted.Commit); err != nil {
		fail("height %d: %v", trusted.Height, err)
	}
	now := time.Now()
	for _, block := range blocks[1:] {
		next, nextVals := decode(block.SignedHeader, block.ValidatorSet.Validators)
		if err := light.Verify(trusted, trustedVals, next, nextVals, trustingPeriod, now, maxClockDrift, light.DefaultTrustLevel); err != nil {
			fail("height %d: %v", next.Height, err)
		}
		trusted, trustedVals = next, nextVals
	}
	proof, _ := decode(in.Proof.SignedHeader, nil)
	if err := light.Verify(trusted, trustedVals, proof, trustedVals, trustingPeriod, now, maxClockDrift, light.DefaultTrustLevel); err != nil {
		fail("the proof's header, height %d: %v", proof.Height, err)
	}
	fmt.Printf("ok %d light blocks followed; the proof's header %d is signed by set %X\n", len(blocks), proof.Height, trustedVals.Hash())
}
