import java.awt.Color;
import java.awt.Dimension;
import java.awt.Graphics2D;
import java.awt.Rectangle;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.File;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import javax.imageio.ImageIO;
import javax.swing.JTextPane;
import javax.swing.SwingUtilities;
import VASSAL.Info;
import VASSAL.build.GameModule;
import VASSAL.build.module.BasicLogger;
import VASSAL.build.module.Chatter;
import VASSAL.build.module.GameSetupStep;
import VASSAL.build.module.GameState;
import VASSAL.build.module.Map;
import VASSAL.build.module.PlayerRoster;
import VASSAL.build.module.map.boardPicker.Board;
import VASSAL.build.module.metadata.AbstractMetaData;
import VASSAL.build.module.metadata.MetaDataFactory;
import VASSAL.build.module.metadata.SaveMetaData;
import VASSAL.command.AddPiece;
import VASSAL.counters.GamePiece;
import VASSAL.counters.Stack;
import VASSAL.launch.StandardConfig;
import VASSAL.tools.DataArchive;
import VASSAL.tools.imageop.ImageOp;

/**
 * Muster's test harness for a .vlog: opens a module with the real VASSAL (as its Player does,
 * no window needed beyond a virtual screen), loads the log as File > Load Game does, presses
 * Step forward until the log has no step left, then prints what VASSAL shows:
 *
 *   METADATA module=NAME matches=true|false
 *   VIEW AFTER k STEPS   (with a third argument k: the table after step k)
 *   TRACKER turn=T phase=P   what the Turn tracker shows (its Turn and Phase properties)
 *   PIECE id=I map=M location=L piece=BASE64   every piece, with VASSAL's name for its place
 *                                               and its AddPiece text (type and state)
 *   STEPS n              the steps the log player ran, all of them
 *   CHAT| line           each line of the chat window, in order
 *   VIEW AT THE END
 *   TRACKER …
 *   PIECE …
 *   STEPLOG OK
 *
 * With a SIDE and an OUT prefix it then takes SIDE's seat and paints each map (its boards'
 * images, the pieces drawn by VASSAL's own code, a piece masked from SIDE face down, as
 * VASSAL shows it to SIDE) into OUT-MAPNAME.png: "WROTE path" for each.
 *
 * Usage: java -cp <vassal-check's classpath> StepLog.java MODULE.vmod GAME.vlog [k|-] [SIDE OUT]
 */
public class StepLog {
  public static void main(String[] args) throws Exception {
    Info.setConfig(new StandardConfig());
    final Class<?> menus = Class.forName("VASSAL.launch.Player$PlayerMenuManager");
    final Constructor<?> k = menus.getDeclaredConstructor();
    k.setAccessible(true);
    k.newInstance();
    final Throwable[] err = new Throwable[1];
    SwingUtilities.invokeAndWait(() -> {
      try { GameModule.init(new GameModule(new DataArchive(args[0]))); }
      catch (Throwable t) { err[0] = t; }
    });
    if (err[0] != null) fail("module", err[0]);
    final GameModule gm = GameModule.getGameModule();
    // No dialogs: a modal one would wait for a click that never comes.
    gm.getPrefs().setValue(BasicLogger.PROMPT_NEW_LOG_START, false);
    gm.getPrefs().setValue(BasicLogger.PROMPT_NEW_LOG_END, false);
    gm.getPrefs().setValue(SaveMetaData.PROMPT_LOG_COMMENT, false);
    final GameState gs = gm.getGameState();
    for (Iterator<GameSetupStep> it = gs.getUnfinishedSetupSteps(); it.hasNext(); ) {
      gs.removeGameSetupStep(it.next());
    }
    final File vlog = new File(args[1]);
    // A log of another module asks "load it anyway?" in a dialog: say so and stop instead.
    final AbstractMetaData md = MetaDataFactory.buildMetaData(vlog);
    final String module = md instanceof SaveMetaData ? ((SaveMetaData) md).getModuleName() : null;
    final boolean matches = gm.getGameName().equals(module);
    System.out.println("METADATA module=" + module + " matches=" + matches);
    if (!matches) System.exit(2);
    SwingUtilities.invokeAndWait(() -> {
      try { if (!gs.loadGame(vlog, false, true)) throw new IllegalStateException("not loaded"); }
      catch (Throwable t) { err[0] = t; }
    });
    if (err[0] != null) fail("load", err[0]);
    final BasicLogger logger = gm.getBasicLogger();
    final Method step = BasicLogger.class.getDeclaredMethod("step");
    step.setAccessible(true);
    final int view = args.length > 2 && !args[2].equals("-") ? Integer.parseInt(args[2]) : -1;
    int steps = 0;
    while (logger.isReplaying()) {
      SwingUtilities.invokeAndWait(() -> {
        try { step.invoke(logger); }
        catch (Throwable t) { err[0] = t; }
      });
      if (err[0] != null) fail("step " + (steps + 1), err[0]);
      steps++;
      if (steps == view) {
        System.out.println("VIEW AFTER " + steps + " STEPS");
        pieces(gm).forEach(System.out::println);
      }
    }
    System.out.println("STEPS " + steps);
    final List<String> chat = new ArrayList<>();
    SwingUtilities.invokeAndWait(() -> {
      try {
        final Field pane = Chatter.class.getDeclaredField("conversationPane");
        pane.setAccessible(true);
        final JTextPane text = (JTextPane) pane.get(gm.getChatter());
        for (String line : text.getDocument().getText(0, text.getDocument().getLength()).split("\n")) {
          if (!line.isBlank()) chat.add("CHAT| " + line.strip());
        }
      }
      catch (Throwable t) { err[0] = t; }
    });
    if (err[0] != null) fail("chat", err[0]);
    chat.forEach(System.out::println);
    System.out.println("VIEW AT THE END");
    pieces(gm).forEach(System.out::println);
    if (args.length > 4) paint(gm, args[3], args[4]);
    System.out.println("STEPLOG OK");
    System.exit(0);
  }

  /** What the Turn tracker shows, then every piece on every map, listed on the Swing thread
   * (where VASSAL lays its maps out). */
  static List<String> pieces(GameModule gm) throws Exception {
    final List<String> out = new ArrayList<>();
    final Throwable[] err = new Throwable[1];
    SwingUtilities.invokeAndWait(() -> {
      try {
        out.add("TRACKER turn=" + gm.getProperty("Turn") + " phase=" + gm.getProperty("Phase"));
        for (Map m : gm.getComponentsOf(Map.class)) {
          for (GamePiece gp : m.getAllPieces()) {
            final List<GamePiece> pieces = new ArrayList<>();
            if (gp instanceof Stack) pieces.addAll(((Stack) gp).asList()); else pieces.add(gp);
            for (GamePiece p : pieces) {
              final String text = gm.encode(new AddPiece(p));
              out.add("PIECE id=" + p.getId() + " map=" + m.getMapName()
                + " location=" + m.locationName(p.getPosition())
                + " piece=" + Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8)));
            }
          }
        }
      }
      catch (Throwable t) { err[0] = t; }
    });
    if (err[0] != null) fail("listing", err[0]);
    return out;
  }

  /** SIDE's seat (VASSAL reads "my side" from this user's roster entry; a loaded game
   * brings its own roster, so the seat is taken once the log is loaded), then each map. */
  static void paint(GameModule gm, String side, String out) throws Exception {
    for (PlayerRoster roster : gm.getComponentsOf(PlayerRoster.class)) {
      roster.add(GameModule.getUserId(), "Muster", side);
    }
    final Throwable[] err = new Throwable[1];
    SwingUtilities.invokeAndWait(() -> {
      try {
        for (Map m : gm.getComponentsOf(Map.class)) {
          final Dimension size = m.mapSize();
          final BufferedImage img = new BufferedImage(size.width, size.height, BufferedImage.TYPE_INT_RGB);
          final Graphics2D g = img.createGraphics();
          g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
          g.setColor(Color.WHITE);
          g.fillRect(0, 0, size.width, size.height);
          // VASSAL paints a board from tiles it makes in the background; read each board's
          // image whole instead, then let VASSAL draw the pieces on it.
          for (Board b : m.getBoards()) {
            final Field op = Board.class.getDeclaredField("boardImageOp");
            op.setAccessible(true);
            final Rectangle r = b.bounds();
            g.drawImage(((ImageOp) op.get(b)).getImage(), r.x, r.y, null);
          }
          m.drawPiecesInRegion(g, new Rectangle(0, 0, size.width, size.height), m.getView());
          g.dispose();
          final File file = new File(out + "-" + m.getMapName() + ".png");
          ImageIO.write(img, "png", file);
          System.out.println("WROTE " + file + " AS " + PlayerRoster.getMySide());
        }
      }
      catch (Throwable t) { err[0] = t; }
    });
    if (err[0] != null) fail("paint", err[0]);
  }

  static void fail(String what, Throwable t) {
    System.out.println("STEPLOG FAILED (" + what + "): " + t);
    t.printStackTrace(System.out);
    System.exit(2);
  }
}
