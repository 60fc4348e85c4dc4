/** Every rule, in code order. A rule is added by creating its file and listing it here. */
import { Rule } from "./rule";
import { AS001 } from "./AS001";
import { AS101 } from "./AS101";
import { AS102 } from "./AS102";
import { AS103 } from "./AS103";
import { AS104 } from "./AS104";
import { AS105 } from "./AS105";
import { AS106 } from "./AS106";
import { AS107 } from "./AS107";
import { AS201 } from "./AS201";
import { AS202 } from "./AS202";
import { AS203 } from "./AS203";
import { AS204 } from "./AS204";
import { AS205 } from "./AS205";
import { AS206 } from "./AS206";
import { AS207 } from "./AS207";
import { AS301 } from "./AS301";
import { AS302 } from "./AS302";
import { AS303 } from "./AS303";
import { AS304 } from "./AS304";
import { AS305 } from "./AS305";
import { AS306 } from "./AS306";
import { AS307 } from "./AS307";
import { AS308 } from "./AS308";
import { AS309 } from "./AS309";
import { AS401 } from "./AS401";
import { AS402 } from "./AS402";
import { AS403 } from "./AS403";
import { AS404 } from "./AS404";
import { AS405 } from "./AS405";
import { AS406 } from "./AS406";
import { AS407 } from "./AS407";
import { AS501 } from "./AS501";
import { AS502 } from "./AS502";

export const allRules: readonly Rule[] = [AS001, AS101, AS102, AS103, AS104, AS105, AS106, AS107, AS201, AS202, AS203, AS204, AS205, AS206, AS207, AS301, AS302, AS303, AS304, AS305, AS306, AS307, AS308, AS309, AS401, AS402, AS403, AS404, AS405, AS406, AS407, AS501, AS502];

export function ruleByCode(code: string): Rule | undefined {
  return allRules.find((r) => r.code === code);
}
