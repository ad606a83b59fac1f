#!/usr/bin/env node
// The krtt command. Runs the TypeScript sources directly (Node >= 22.18 strips types).
import { main } from "../shell/cli/main.ts"

main()
