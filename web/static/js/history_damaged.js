// A game that no longer replays: the page is static (its reason, the raw export link).
import "./common.js";
