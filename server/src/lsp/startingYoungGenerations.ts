/** Imported first by the language server's entry points, before their modules load (youngGenerations.ts). */
import { keepYoungGenerationsAtStartingSize } from "./youngGenerations";

keepYoungGenerationsAtStartingSize();
