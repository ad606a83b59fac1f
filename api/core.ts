export * from "../core/krtt/index.ts"
