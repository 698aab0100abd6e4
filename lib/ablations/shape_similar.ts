/**
 * Groups of visually similar simplified Chinese characters (common confusables, compiled for this project),
 * for the shape-based character substitution of the robustness ablation.
 * @module
 */

const GROUPS = [
  "己已巳", "未末", "土士", "日曰", "人入八", "大太犬", "王玉主", "木本术", "干千于", "天夫", "刀力", "午牛",
  "贝见", "免兔", "鸟乌", "戊戍戌", "拔拨", "候侯", "栽裁载", "辨辩辫", "炙灸", "苟荀", "崇祟", "汩汨", "密蜜",
  "摸模", "析折", "洒酒", "赢羸嬴", "壶壸", "晴睛", "清情请", "绩积", "撤撒", "即既", "治冶", "准淮", "免勉",
  "拆折", "径经", "休体", "历厉", "母毋", "田由甲申", "末未", "问间", "问同", "白自", "百首", "目且", "已己",
  "仑仓", "昌冒", "沐沭", "苦若", "茶荼", "侍待", "哀衰衷", "冷泠", "徒徙", "买卖", "宇字", "冲仲", "会合",
  "肤扶", "脉派", "肠汤", "肿种", "痛通", "疾嫉", "病柄", "症证", "症痖", "胃谓", "肝杆", "脑恼", "肺沛",
  "血皿", "尿屎", "咳该", "痰淡", "热势", "烧绕", "疼冬", "痒样", "腹复", "胸凶", "颈劲", "脊背", "臂劈",
  "药约", "剂济", "针计", "術述", "治始", "疗了", "诊珍", "断继", "查杏", "检捡俭险", "验睑脸", "测侧", "院完",
  "医区", "患串", "者著", "护沪", "理埋", "术朮", "刺剌", "切彻", "除徐", "缝逢", "管菅", "插播", "镜境竟",
  "输偷", "液夜", "滴摘", "注住柱", "射谢", "服报", "钾钟", "钠纳", "钙钩", "镁镂", "酸峻", "碱减", "糖塘",
  "脂指", "酶霉", "素索", "激邀", "肌机", "细组", "胞包", "毒毐", "菌茵", "炎灸", "肿胀", "瘤榴", "癌瘟",
  "压庄", "低底", "高亮", "急恁", "慢漫", "性姓", "期朗", "常堂", "异导", "阳阴", "左右", "上土", "下卜",
];

function buildMap(): Map<string, string[]> {
  const map = new Map<string, Set<string>>();
  for (const group of GROUPS) {
    const chars = [...group];
    for (const ch of chars) {
      const set = map.get(ch) ?? new Set<string>();
      for (const other of chars) if (other !== ch) set.add(other);
      map.set(ch, set);
    }
  }
  return new Map([...map].map(([ch, set]) => [ch, [...set].sort()]));
}

/** Character → visually similar characters (symmetric within each group). */
export const SHAPE_SIMILAR: ReadonlyMap<string, readonly string[]> = buildMap();
