/** The routers' names, apart from the routers (routers.ts): the CLI's help lists them without loading the fleet simulator. */
export const ROUTER_NAMES = ['round-robin', 'random', 'jsq', 'p2c', 'lew', 'segregation', 'learned'] as const;
export type RouterName = (typeof ROUTER_NAMES)[number];
