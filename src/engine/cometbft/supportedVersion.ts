// The CometBFT release ledgerd is built and tested against (scripts/cometbft-version installs
// it; a test keeps the two equal). ABCI and RPC change between minor releases, and BigchainDB's
// operators were bitten by running another Tendermint than the one it spoke: `ledgerd doctor`
// refuses any other version.
export const supportedCometBftVersion = "0.38.26";
