package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/xgr-sidecar/xgr/chain"
	"github.com/xgr-sidecar/xgr/envelope"
)

// ruleCryptCommands are `xgr rule encrypt` and `xgr rule decrypt`.
func ruleCryptCommands() []*cli.Command {
	return []*cli.Command{
		{
			Name:      "encrypt",
			Usage:     "seal a rule document FILE as an XGR1 envelope and wrap its key for a reader (scope 1)",
			ArgsUsage: "FILE",
			Description: `Seals FILE (JSON, at most 131072 bytes) under a fresh random data key and
wraps that key for the read public key --to (XGRK2, scope 1, bound to the
envelope's rid). Prints rid, suite, blob (the XGR1 envelope) and encDEK (the
wrapped key). --out writes the blob to a new file, ready for
"xgr rule update --rid RID --suite AESGCM256 --encdek 0x<encDEK hex> BLOB".
Only the holder of the read key behind --to can open it (xgr rule decrypt).

Example:
   xgr rule encrypt rules/kyc.json --to 0x04ab… --out kyc.xgr1 --json`,
			Flags: []cli.Flag{jsonFlag(), forceFlag(),
				&cli.StringFlag{Name: "to", EnvVars: []string{"XGR_ENCRYPT_TO"}, Required: true,
					Usage: "the reader's read public key: 0x and 130 hex digits (65-byte SEC1, as `xgr keys show` prints it)"},
				&cli.StringFlag{Name: "out", Usage: "also write the XGR1 blob to this new file"},
			},
			Action: ruleEncryptAction,
		},
		{
			Name:      "decrypt",
			Usage:     "open the XGR1 rule envelope in BLOB_FILE with a read key and its wrapped key; print the document",
			ArgsUsage: "BLOB_FILE",
			Description: `BLOB_FILE holds an XGR1 envelope (surrounding white space is ignored);
--enc-dek is the data key wrapped for the read key (XGRK2.P256HKDFGCM.… or
0x-hex) with scope 1. The read key comes from --read-key FILE, else from
$XGR_READ_KEY. Prints the plaintext document as it was sealed; --json prints
{"rid", "document"}.

Exit status: 1 when the wrapped key or the envelope does not open (another
reader's key, another scope or rid, or changed content).`,
			Flags: []cli.Flag{jsonFlag(),
				&cli.StringFlag{Name: "read-key", EnvVars: []string{envelope.ReadKeyFileEnv}, Usage: "file holding the read key (else $" + envelope.ReadKeyEnv + ")"},
				&cli.StringFlag{Name: "enc-dek", EnvVars: []string{"XGR_ENC_DEK"}, Required: true, Usage: "the wrapped data key: XGRK2.P256HKDFGCM.<hex> or 0x<hex>"},
			},
			Action: ruleDecryptAction,
		},
	}
}

func ruleEncryptAction(c *cli.Context) error {
	raw, err := readRuleFile(c, c.Bool(forceFlag().Name))
	if err != nil {
		return err
	}
	if envelope.IsSealed(raw) {
		return cli.Exit(fmt.Sprintf("%s: %s is already an XGR1 envelope", cmdName(c), c.Args().First()), 2)
	}
	to, err := envelope.ParsePublicHex(c.String("to"))
	if err != nil {
		return cli.Exit(fmt.Sprintf("%s: --to: %v", cmdName(c), err), 2)
	}
	sr, err := envelope.SealRule(raw, to)
	if err != nil {
		return cli.Exit(fmt.Sprintf("%s: %v", cmdName(c), err), 2)
	}
	blob := sr.Sealed.String()
	if out := c.String("out"); out != "" {
		// No trailing line break: the file is the rule text that
		// "xgr rule update FILE" stores, and an envelope is one line.
		if err := writeNewFile(out, []byte(blob)); err != nil {
			return cli.Exit(fmt.Sprintf("%s: --out: %v", cmdName(c), err), 2)
		}
	}
	res := struct {
		RID       string `json:"rid"`
		Suite     string `json:"suite"`
		Blob      string `json:"blob"`
		EncDEK    string `json:"encDEK"`
		EncDEKHex string `json:"encDEKHex"`
		Scope     int    `json:"scope"`
		To        string `json:"to"`
	}{sr.Sealed.RID.String(), envelope.Suite, blob, sr.Wrapped.String(), "0x" + hex.EncodeToString(sr.Wrapped.Bytes()), int(envelope.ScopeRule), envelope.PublicHex(to)}
	if c.Bool(jsonFlag().Name) {
		return json.NewEncoder(c.App.Writer).Encode(res)
	}
	return chain.WriteFields(c.App.Writer, []chain.Field{
		{Name: "rid", Value: res.RID}, {Name: "suite", Value: res.Suite}, {Name: "scope", Value: "1 (rules)"},
		{Name: "to", Value: res.To}, {Name: "encDEK", Value: res.EncDEK}, {Name: "blob", Value: res.Blob},
	})
}

func ruleDecryptAction(c *cli.Context) error {
	if err := argsExactly(c, 1, "BLOB_FILE"); err != nil {
		return err
	}
	blob, err := envelope.ReadRuleText(c.Args().First())
	if err != nil {
		return cli.Exit(fmt.Sprintf("%s: %v", cmdName(c), err), 2)
	}
	file, env := c.String("read-key"), os.Getenv(envelope.ReadKeyEnv)
	if file != "" {
		env = "" // the flag names the key to use
	}
	key, ok, err := envelope.FindReadKey(file, env)
	if err != nil {
		return cli.Exit(fmt.Sprintf("%s: %v", cmdName(c), err), 2)
	} else if !ok {
		return usageError("%s: --read-key FILE is required (or $%s)", cmdName(c), envelope.ReadKeyEnv)
	}
	s, err := envelope.ParseSealed(blob, envelope.MaxRuleBytes)
	if err != nil {
		return cli.Exit(fmt.Sprintf("%s: %s: %v", cmdName(c), c.Args().First(), err), 2)
	}
	w, err := envelope.ParseWrapped(strings.TrimSpace(c.String("enc-dek")))
	if err != nil {
		return cli.Exit(fmt.Sprintf("%s: --enc-dek: %v", cmdName(c), err), 2)
	}
	plain, err := s.OpenWith(key, w, envelope.ScopeRule)
	if err != nil {
		return cli.Exit(fmt.Sprintf("%s: %v", cmdName(c), err), 1)
	}
	if !c.Bool(jsonFlag().Name) {
		_, err = c.App.Writer.Write(plain)
		return err
	}
	res := struct {
		RID      string `json:"rid"`
		Document any    `json:"document"`
	}{RID: s.RID.String(), Document: string(plain)}
	if json.Valid(plain) {
		res.Document = json.RawMessage(plain)
	}
	enc := json.NewEncoder(c.App.Writer)
	enc.SetEscapeHTML(false) // the document as written
	return enc.Encode(res)
}

// writeNewFile writes data to a file that must not exist yet.
func writeNewFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
